// Scheduling control information carried in SASS encodings (seed-tables.md section 3).
// Volta and later: the 21-bit section sits at bits 41..61 of the high 64-bit word of each
// 128-bit instruction. Maxwell/Pascal: one 64-bit control word precedes each group of three
// instructions and holds three 21-bit sections from the LSB up.
// Section layout, MSB->LSB: reuse[20:17] wait-mask[16:11] read-barrier[10:8]
// write-barrier[7:5] yield[4] stall[3:0]. Barrier index 7 means "no barrier".
#pragma once

#include <cstdint>

namespace gpuperf::sass {

struct ControlBits {
  std::uint8_t stall = 0;          // cycles before the warp's next instruction may issue
  bool yield = false;              // set: prefer to keep issuing this warp
  std::uint8_t write_barrier = 7;  // barrier set when the result is written (7 = none)
  std::uint8_t read_barrier = 7;   // barrier set when sources have been read (7 = none)
  std::uint8_t wait_mask = 0;      // barriers this instruction waits on
  std::uint8_t reuse = 0;          // operand reuse-cache flags, bit 0 = first source
  bool valid = false;

  bool has_write_barrier() const { return write_barrier < 6; }
  bool has_read_barrier() const { return read_barrier < 6; }
  bool operator==(const ControlBits& o) const {
    return stall == o.stall && yield == o.yield && write_barrier == o.write_barrier &&
           read_barrier == o.read_barrier && wait_mask == o.wait_mask && reuse == o.reuse && valid == o.valid;
  }
};

constexpr ControlBits decode_control_section(std::uint32_t section21) {
  ControlBits c;
  c.stall = static_cast<std::uint8_t>(section21 & 0xf);
  c.yield = ((section21 >> 4) & 1u) != 0;
  c.write_barrier = static_cast<std::uint8_t>((section21 >> 5) & 0x7);
  c.read_barrier = static_cast<std::uint8_t>((section21 >> 8) & 0x7);
  c.wait_mask = static_cast<std::uint8_t>((section21 >> 11) & 0x3f);
  c.reuse = static_cast<std::uint8_t>((section21 >> 17) & 0xf);
  c.valid = true;
  return c;
}

// Volta, Turing, Ampere, Ada, Hopper: from the high 64-bit word of the instruction.
constexpr ControlBits decode_control_volta(std::uint64_t high_word) {
  return decode_control_section(static_cast<std::uint32_t>((high_word >> 41) & 0x1fffffu));
}

// Maxwell/Pascal: slot 0..2 of the control word preceding three instructions.
constexpr ControlBits decode_control_maxwell(std::uint64_t control_word, int slot) {
  return decode_control_section(static_cast<std::uint32_t>((control_word >> (21 * slot)) & 0x1fffffu));
}

}  // namespace gpuperf::sass
