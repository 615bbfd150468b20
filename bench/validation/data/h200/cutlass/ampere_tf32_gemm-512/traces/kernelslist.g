kernel-1.traceg.xz
kernel-2.traceg.xz
