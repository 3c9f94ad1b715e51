#include "test_util.h"
TEST_CASE("placeholder") {}
