// The softmax example kernel (examples/kernels/rows.hpp): prints its PTX with --ptx.
#include "example_main.hpp"
#include "kernels/rows.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "softmax: a ptxpp DSL example", examples::softmax, {{"M", 1024}, {"N", 4096}});
}
