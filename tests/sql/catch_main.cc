// The main() of every catch2 test of the SQL layer, compiled once.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
