// Error hierarchy: every failure the library reports carries a stable id and, where it
// comes from an input file, the file, line and column. The library never exits or aborts;
// only the CLI's main() turns errors into exit statuses.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpuperf {

enum class ErrorId : int {
  io = 100,            // file missing, unreadable, decompression failure
  parse = 200,         // malformed trace / listing / CSV content
  format_unknown = 210,// input format could not be recognised
  table = 300,         // latency table / catalog invalid
  unknown_gpu = 310,   // GPU name not in the catalog
  invalid_argument = 400,
  model = 500,         // input cannot be modelled (e.g. no kernels)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorId id, const std::string& message) : std::runtime_error(message), id_(id) {}
  ErrorId id() const noexcept { return id_; }

 private:
  ErrorId id_;
};

class IoError : public Error {
 public:
  explicit IoError(const std::string& m) : Error(ErrorId::io, m) {}
};

// Position-carrying parse error: "file:line:col: expected X, found 'Y'".
class ParseError : public Error {
 public:
  ParseError(const std::string& file, std::uint64_t line, std::uint32_t column, const std::string& what)
      : Error(ErrorId::parse, file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what),
        file_(file), line_(line), column_(column) {}
  const std::string& file() const noexcept { return file_; }
  std::uint64_t line() const noexcept { return line_; }
  std::uint32_t column() const noexcept { return column_; }

 private:
  std::string file_;
  std::uint64_t line_;
  std::uint32_t column_;
};

class FormatError : public Error {
 public:
  explicit FormatError(const std::string& m) : Error(ErrorId::format_unknown, m) {}
};

class TableError : public Error {
 public:
  explicit TableError(const std::string& m) : Error(ErrorId::table, m) {}
};

class UnknownGpuError : public Error {
 public:
  explicit UnknownGpuError(const std::string& m) : Error(ErrorId::unknown_gpu, m) {}
};

class ArgumentError : public Error {
 public:
  explicit ArgumentError(const std::string& m) : Error(ErrorId::invalid_argument, m) {}
};

// A kernel selector (launch id, name regex, launch window) that names no kernel of the input:
// an ArgumentError for the CLI, a LookupError in Python.
class UnknownKernelError : public ArgumentError {
 public:
  explicit UnknownKernelError(const std::string& m) : ArgumentError(m) {}
};

class ModelError : public Error {
 public:
  explicit ModelError(const std::string& m) : Error(ErrorId::model, m) {}
};

}  // namespace gpuperf
