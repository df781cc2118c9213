#ifndef AUTHDECK_CBUILDINFO_H
#define AUTHDECK_CBUILDINFO_H
/*
 * The commit a shipped binary was built from, stamped after the build: `scripts/package` and
 * `scripts/install` overwrite the slot's marker in their copy of the binary with the commit id
 * (NUL-terminated, at most 47 bytes), so the same release build serves the tests and the package
 * and no build flag differs between them. An unstamped binary still holds the marker.
 */

/* The slot: "@@AUTHDECK-COMMIT@@" until stamped; then the commit id. Read it through
   authdeck_build_commit_text (Swift 6 refuses a direct read of a mutable C global). */
extern char authdeck_build_commit[48];

/* The slot's text (never NULL). */
const char *authdeck_build_commit_text(void);

#endif
