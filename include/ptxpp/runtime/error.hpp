// ptx::runtime::Error: a problem loading the driver, finding a device, compiling or launching.
#pragma once

#include <stdexcept>
#include <string>

namespace ptx::runtime {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace ptx::runtime
