kernel-2.traceg.xz
