// Checked conversions for values that enter from files, options or Python: a double becomes
// an integer only when it is finite, within the allowed range and (where asked) integral,
// so a NaN, an infinity or 1e30 can never reach a static_cast (undefined behaviour) or wrap
// into a small number. Callers turn a failed conversion into an error naming the field.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace gpuperf {

// v rounded to the nearest integer if it is finite and the result lies in [lo, hi].
template <class T>
std::optional<T> checked_round(double v, T lo, T hi) {
  static_assert(std::is_integral_v<T>, "integral target");
  if (!std::isfinite(v)) return std::nullopt;
  double r = std::nearbyint(v);
  // Compare in double before any cast: values beyond the target's range never get cast.
  if (!(r >= static_cast<double>(lo) && r <= static_cast<double>(hi))) return std::nullopt;
  return static_cast<T>(r);
}

// As checked_round, and v must already be an integer (IDs, counts, dimensions).
template <class T>
std::optional<T> checked_integer(double v, T lo, T hi) {
  if (!std::isfinite(v) || v != std::floor(v)) return std::nullopt;
  return checked_round<T>(v, lo, hi);
}

// "0..255" for messages.
template <class T>
std::string range_text(T lo, T hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

}  // namespace gpuperf
