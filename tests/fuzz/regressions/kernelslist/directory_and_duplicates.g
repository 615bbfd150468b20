MemcpyHtoD,0x0000000502000000,800000
adir.traceg
kernel-10.traceg
kernel-2.traceg
kernel-2.traceg
