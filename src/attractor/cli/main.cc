#include "attractor/cli/cli.h"

int main(int argc, char** argv) { return attractor::run_cli(argc, argv); }
