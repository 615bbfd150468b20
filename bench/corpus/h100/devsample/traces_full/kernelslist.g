kernel-1.traceg.xz
kernel-25.traceg.xz
