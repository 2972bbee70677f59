// The layernorm example kernel (examples/kernels/rows.hpp): prints its PTX with --ptx.
#include "example_main.hpp"
#include "kernels/rows.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "layernorm: a ptxpp DSL example", examples::layernorm, {{"M", 1024}, {"N", 4096}});
}
