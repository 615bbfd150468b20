// The lane addresses of a kernel's dynamic memory instructions, stored compactly. Warps touch
// memory in regular patterns (consecutive words, broadcasts, a tile's two rows), so an
// instruction is kept as its first address and runs of equal lane-to-lane steps, each step in
// as few bytes as it needs: a 32-lane LDS of consecutive words takes 5 bytes instead of 256.
// Any address list round-trips exactly; only the memory it takes depends on its pattern.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "gpuperf/error.hpp"

namespace gpuperf {

class AddressPool {
 public:
  // An instruction's addresses are found by their byte offset, kept in 48 bits (DynInstr).
  static constexpr std::uint64_t kMaxBytes = std::uint64_t(1) << 48;

  AddressPool() = default;
  AddressPool(const AddressPool& o) { *this = o; }
  AddressPool(AddressPool&& o) noexcept { *this = std::move(o); }
  AddressPool& operator=(AddressPool&& o) noexcept {
    if (this == &o) return *this;
    bytes_ = std::move(o.bytes_);
    size_ = o.size_;
    cap_ = o.cap_;
    o.size_ = o.cap_ = 0;
    return *this;
  }
  AddressPool& operator=(const AddressPool& o) {
    if (this == &o) return *this;
    size_ = 0;
    cap_ = 0;
    bytes_.reset();
    if (o.size_) {
      reserve(o.size_);
      std::memcpy(bytes_.get(), o.bytes_.get(), o.size_ + kPad);
      size_ = o.size_;
    }
    return *this;
  }

  // Stores n >= 1 addresses and returns their offset (for decode).
  std::uint64_t append(const std::uint64_t* a, unsigned n) {
    // Worst case: the first address and one run per further lane, 9 bytes each.
    if (cap_ < size_ + 9 * std::size_t(n) + kPad) grow(size_ + 9 * std::size_t(n));
    const std::uint64_t at = size_;
    std::uint8_t* p = bytes_.get() + size_;
    p = put(p, 0, a[0]);
    std::uint64_t step = 0;
    unsigned run = 0;  // lanes in the open run of `step`
    for (unsigned i = 1; i < n; ++i) {
      const std::uint64_t d = a[i] - a[i - 1];
      if (run && d == step && run < kMaxRun) { ++run; continue; }
      if (run) p = put(p, run - 1, step);
      step = d;
      run = 1;
    }
    if (run) p = put(p, run - 1, step);
    size_ = static_cast<std::size_t>(p - bytes_.get());
    std::memset(p, 0, kPad);
    if (size_ >= kMaxBytes) throw FormatError("expected at most 256 TiB of encoded lane addresses per kernel; split the trace with the tracer's CTA sampling");
    return at;
  }

  // The n addresses stored at `at` (n as given to append).
  void decode(std::uint64_t at, unsigned n, std::uint64_t* out) const {
    const std::uint8_t* p = bytes_.get() + at;
    unsigned ignored_run;
    std::uint64_t v = get(p, ignored_run);
    out[0] = v;
    for (unsigned i = 1; i < n;) {
      unsigned run;
      const std::uint64_t step = get(p, run);
      for (const unsigned end = i + run < n ? i + run : n; i < end; ++i) out[i] = v += step;
    }
  }

  bool empty() const { return size_ == 0; }
  // Forgets the lists stored at offset `at` and after (an offset append() returned).
  void truncate(std::uint64_t at) {
    if (at >= size_) return;
    size_ = static_cast<std::size_t>(at);
    std::memset(bytes_.get() + size_, 0, kPad);
  }
  std::size_t size_bytes() const { return size_; }
  // Capacity for `bytes` of data; pages not yet written take no memory.
  void reserve(std::size_t bytes) {
    if (bytes + kPad <= cap_) return;
    std::unique_ptr<std::uint8_t[]> b(new std::uint8_t[bytes + kPad]);  // not zero-filled, so untouched pages stay free
    if (size_) std::memcpy(b.get(), bytes_.get(), size_ + kPad);
    else std::memset(b.get(), 0, kPad);
    bytes_.swap(b);
    cap_ = bytes + kPad;
  }

 private:
  // A run: a control byte (bits 0-4: lanes - 1, bits 5-7: the step's size class), then the
  // step's low bytes, sign-extended on decode. Classes: 0, 1, 2, 3, 4, 5, 6 or 8 bytes.
  static constexpr unsigned kMaxRun = 32;
  static constexpr std::size_t kPad = 8;  // zero bytes after the data: decode loads 8 at a time
  static constexpr std::uint8_t kClassBytes[8] = {0, 1, 2, 3, 4, 5, 6, 8};

  static unsigned size_class(std::uint64_t v) {
    if (v == 0) return 0;
    // Bytes that hold v as a signed number: its significant bits plus a sign bit.
    const std::uint64_t mag = v ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(v) >> 63);
    const unsigned bits = (mag ? 64u - static_cast<unsigned>(__builtin_clzll(mag)) : 0u) + 1u;
    const unsigned bytes = (bits + 7) / 8;
    return bytes >= 7 ? 7 : bytes;
  }
  static std::uint8_t* put(std::uint8_t* p, unsigned run_minus_one, std::uint64_t v) {
    const unsigned c = size_class(v);
    *p++ = static_cast<std::uint8_t>(c << 5 | run_minus_one);
    for (unsigned b = 0; b < kClassBytes[c]; ++b) *p++ = static_cast<std::uint8_t>(v >> (8 * b));
    return p;
  }
  static std::uint64_t get(const std::uint8_t*& p, unsigned& run) {
    const unsigned ctrl = *p++;
    run = (ctrl & 31) + 1;
    const unsigned nb = kClassBytes[ctrl >> 5];
    std::uint64_t raw;
    std::memcpy(&raw, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    raw = __builtin_bswap64(raw);
#endif
    p += nb;
    if (nb == 0) return 0;
    const unsigned shift = 64 - 8 * nb;
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(raw << shift) >> shift);
  }
  void grow(std::size_t need) {
    std::size_t cap = cap_ < 4096 ? 4096 : cap_;
    while (cap < need + kPad) cap *= 2;
    reserve(cap - kPad);
  }

  std::unique_ptr<std::uint8_t[]> bytes_;  // cap_ bytes; data, then kPad zero bytes
  std::size_t size_ = 0, cap_ = 0;
};

}  // namespace gpuperf
