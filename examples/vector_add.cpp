// The vector_add example kernel (examples/kernels/elementwise.hpp): prints its PTX with --ptx.
#include "example_main.hpp"
#include "kernels/elementwise.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "vector_add: a ptxpp DSL example", examples::vector_add, {{"N", 1 << 20}});
}
