kernel-1.traceg.xz
kernel-2.traceg.xz
kernel-3.traceg.xz
kernel-4.traceg.xz
kernel-5.traceg.xz
kernel-6.traceg.xz
