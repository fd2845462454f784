// The implementation profiles: one line each (docs/architecture.md).
#include "perfmodel/errors.hpp"
#include "perfmodel/profile.hpp"

namespace perfmodel {

const Profile& fused_profile();
const Profile& eager_profile();
const Profile& compiled_profile();

const std::vector<const Profile*>& profiles() {
  static const std::vector<const Profile*> all = {
      &fused_profile(),
      &eager_profile(),
      &compiled_profile(),
  };
  return all;
}

const Profile& profile_for(Impl impl) {
  for (const Profile* p : profiles())
    if (p->impl == impl) return *p;
  throw InputError("no implementation profile for '" + to_string(impl) + "'");
}

}  // namespace perfmodel
