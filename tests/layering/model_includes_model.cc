// Compiled by the `layering_right_way` test with the include roots of attractor_model only: the
// control for layering_wrong_way (the same command succeeds on the model's own headers).
#include "attractor/model/graph.h"

int main() { return 0; }
