// Small allocation-free scanners shared by the text readers.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpuperf/error.hpp"

namespace gpuperf::scan {

// Compile-time hex digit table: no function-local static (and its guard) on the hot path.
struct HexTable {
  unsigned char v[256];
  constexpr HexTable() : v() {
    for (int i = 0; i < 256; ++i) v[i] = 255;
    for (int i = 0; i < 10; ++i) v['0' + i] = static_cast<unsigned char>(i);
    for (int i = 0; i < 6; ++i) {
      v['a' + i] = static_cast<unsigned char>(10 + i);
      v['A' + i] = static_cast<unsigned char>(10 + i);
    }
  }
};
inline constexpr HexTable kHexDigit{};

// Cursor over one line that knows where it is, so errors can name the column.
struct Cursor {
  std::string_view line;
  std::size_t pos = 0;
  const std::string* file = nullptr;
  std::uint64_t line_no = 0;

  void skip_ws() {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
  }
  bool at_end() {
    skip_ws();
    return pos >= line.size();
  }
  std::string_view token() {
    skip_ws();
    std::size_t s = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
    return line.substr(s, pos - s);
  }
  [[noreturn]] void fail(const std::string& expected, std::size_t at) const {
    std::string found = at < line.size() ? std::string(line.substr(at, std::min<std::size_t>(24, line.size() - at)))
                                         : std::string("end of line");
    bool binary = false;
    for (auto& c : found)
      if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) { binary |= c != '\t'; c = '?'; }
    // Readers do not scan every byte for junk on the hot path; a token that fails to parse
    // because it holds control bytes is reported as binary data here.
    throw ParseError(file ? *file : std::string("<input>"), line_no, static_cast<std::uint32_t>(at + 1),
                     "expected " + expected + ", found " + (binary ? "binary data" : "'" + found + "'"));
  }
  // One hexadecimal token at q (an optional 0x, then 1..16 digits, ending at a blank or at e):
  // its value and the byte after it; end is nullptr when the token does not parse cleanly.
  // Hot path of trace parsing (addresses, PCs, masks; a mode-0 memory line holds 32
  // addresses), shared by hex() and hex_list(). Pointers, not the member `pos`: stores through
  // a char pointer could alias it, which kept the loop reloading and storing pos for every
  // digit. (An 8-bytes-at-a-time version measured slower: trace tokens have steady lengths,
  // so this loop's branches predict well.)
  struct HexToken {
    std::uint64_t value;
    const char* end;
  };
  static HexToken scan_hex(const char* q, const char* const e) {
    if (e - q > 1 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) q += 2;
    const char* const first = q;
    std::uint64_t v = 0;
    unsigned d;
    while (q < e && (d = kHexDigit.v[static_cast<unsigned char>(*q)]) <= 15) {
      v = (v << 4) | d;
      ++q;
    }
    if (q == first || q - first > 16 || (q < e && *q != ' ' && *q != '\t')) return {v, nullptr};
    return {v, q};
  }
  static const char* skip_blanks(const char* q, const char* const e) {
    while (q < e && (*q == ' ' || *q == '\t')) ++q;
    return q;
  }
  std::uint64_t hex() {
    const char* const b = line.data();
    const char* const e = b + line.size();
    const char* const s = skip_blanks(b + pos, e);
    const HexToken t = scan_hex(s, e);
    if (!t.end) fail("a hexadecimal number", static_cast<std::size_t>(s - b));
    pos = static_cast<std::size_t>(t.end - b);
    return t.value;
  }
  // n hexadecimal numbers (a mode-0 memory line's 32 addresses) into out, the cursor's members
  // loaded and stored once, not per token (a call of hex() per address was half the cost of a
  // token). A token that does not parse cleanly is scanned again by hex(), which words the error.
  void hex_list(unsigned n, std::uint64_t* out) {
    const char* const b = line.data();
    const char* const e = b + line.size();
    const char* q = b + pos;
    for (unsigned i = 0; i < n; ++i) {
      q = skip_blanks(q, e);
      const HexToken t = scan_hex(q, e);
      if (!t.end) {
        pos = static_cast<std::size_t>(q - b);
        hex();  // the same token fails again there: hex() words the error and throws
      }
      out[i] = t.value;
      q = t.end;
    }
    pos = static_cast<std::size_t>(q - b);
  }
  static unsigned hex_digit(unsigned char c) { return kHexDigit.v[c]; }
  std::int64_t integer() {
    skip_ws();
    std::size_t s = pos;
    std::int64_t v = 0;
    if (pos + 1 < line.size() && line[pos] == '0' && (line[pos + 1] == 'x' || line[pos + 1] == 'X')) {
      std::uint64_t u = hex();
      return static_cast<std::int64_t>(u);
    }
    // Most fields of a trace line are one digit (register counts, widths, modes).
    const std::size_t n = line.size();
    if (pos < n) {
      const unsigned d = static_cast<unsigned char>(line[pos]) - unsigned('0');
      if (d < 10 && (pos + 1 == n || line[pos + 1] == ' ' || line[pos + 1] == '\t')) {
        ++pos;
        return d;
      }
    }
    auto r = std::from_chars(line.data() + pos, line.data() + line.size(), v, 10);
    if (r.ec != std::errc() || (r.ptr < line.data() + line.size() && *r.ptr != ' ' && *r.ptr != '\t'))
      fail("an integer", s);
    pos = static_cast<std::size_t>(r.ptr - line.data());
    return v;
  }
  std::uint64_t uinteger(std::uint64_t max_value, const char* what) {
    std::size_t s = (skip_ws(), pos);
    std::int64_t v = integer();
    if (v < 0 || static_cast<std::uint64_t>(v) > max_value) fail(std::string(what) + " in 0.." + std::to_string(max_value), s);
    return static_cast<std::uint64_t>(v);
  }
};

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

inline bool has_binary_junk(std::string_view s) {
  for (unsigned char c : s)
    if (c == 0 || (c < 32 && c != '\t' && c != '\r' && c != '\n')) return true;
  return false;
}

}  // namespace gpuperf::scan
