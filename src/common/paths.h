// Where warpsim's data files (configs/, isa/) live.
#pragma once
#include <string>

namespace ws {

// $WARPSIM_DATA_DIR if set; otherwise the first of <exe>/../.., <exe>/..,
// <exe>/../share/warpsim and the source tree that holds configs/.
std::string data_dir();

}  // namespace ws
