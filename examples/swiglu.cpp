// The swiglu example kernel (examples/kernels/elementwise.hpp): prints its PTX with --ptx.
#include "example_main.hpp"
#include "kernels/elementwise.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "swiglu: a ptxpp DSL example", examples::swiglu, {{"N", 1 << 20}});
}
