kernel_1 = { "kernel_name": 'Kernel }
