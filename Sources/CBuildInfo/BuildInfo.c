// The one definition of the commit slot (see include/CBuildInfo.h). Writable data, not const:
// the compiler cannot fold a read of it into the marker it starts with.
#include "CBuildInfo.h"

char authdeck_build_commit[48] = "@@AUTHDECK-COMMIT@@";

const char *authdeck_build_commit_text(void) {
    authdeck_build_commit[sizeof authdeck_build_commit - 1] = 0; /* a stamp never runs past the slot */
    return authdeck_build_commit;
}
