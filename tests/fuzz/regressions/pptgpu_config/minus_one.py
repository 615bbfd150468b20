kernel_1 = { "kernel_name": "K", "num_registers": -1, "grid_size": 4294967297, "block_size": 64 }
