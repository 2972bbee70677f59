// The identity example kernel (examples/kernels/elementwise.hpp): prints its PTX with --ptx.
#include "example_main.hpp"
#include "kernels/elementwise.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "identity: a ptxpp DSL example", examples::identity, {{"N", 1 << 20}});
}
