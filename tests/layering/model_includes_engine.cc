// Compiled by the `layering_wrong_way` test with the include roots of attractor_model only: the
// model layer must not see the engine's headers, so this file must fail to compile.
#include "attractor/engine/engine.h"

int main() { return 0; }
