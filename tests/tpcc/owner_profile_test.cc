// classify_owner_stack: a sample goes to the bucket of its first (leafmost)
// frame that a rule matches.
#include "tpcc/owner_profile.h"

#include <catch2/catch.hpp>

namespace tpcc {

TEST_CASE("owner stacks go to the bucket of their leafmost matching frame") {
  // An allocation counts with what allocates: a node copy, a new record.
  CHECK(classify_owner_stack({"solo::internal::ObjectPool::allocate(unsigned int)",
                              "solo::internal::TreeWriter::writable(solo::internal::Node*)",
                              "solo::WriteTxn::update_columns(...)"}) == "copying shared nodes");
  CHECK(classify_owner_stack({"solo::internal::ObjectPool::allocate(unsigned int)",
                              "solo::internal::DbImpl::make_record(...)"}) == "changing rows");
  // Reclaiming retired objects is part of handing out a round.
  CHECK(classify_owner_stack({"solo::internal::ObjectPool::make_spare(void*, unsigned int)",
                              "solo::internal::ObjectPool::reclaim(...)",
                              "solo::internal::DbImpl::reclaim()"}) == "handing out answers");
  CHECK(classify_owner_stack({"solo::internal::btree_descend(...)", "solo::WriteTxn::get_for_update(...)",
                              "solo::sql::FindPointRow(...)"}) == "finding rows");
  CHECK(classify_owner_stack({"solo::sql::Eval(...)", "tpcc::run_new_order(...)"}) == "SQL executor");
  CHECK(classify_owner_stack({"malloc", "tpcc::(anonymous namespace)::copy_out(...)"}) ==
        "harness (tpcc)");
  CHECK(classify_owner_stack({"pthread_cond_signal@@GLIBC_2.3.2",
                              "solo::internal::LogWriter::submit(...)"}) == "logging");
}

}  // namespace tpcc
