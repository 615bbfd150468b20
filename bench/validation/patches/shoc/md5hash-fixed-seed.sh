# Run from the SHOC source root.  MD5Hash picks the key to search for with
# srandom(time(NULL)); a fixed seed makes every run search for the same key.
sed -i 's|srandom(time(NULL));|srandom(20110101); /* fixed for reproducible runs */|' src/cuda/level1/md5hash/MD5Hash.cu
grep -q 'srandom(20110101);' src/cuda/level1/md5hash/MD5Hash.cu
