#ifndef AUTHDECK_CXATTR_SHIM_H
#define AUTHDECK_CXATTR_SHIM_H
/* Extended attributes (glibc): the mark on files authdeck wrote (QuickToken.WrittenMark). */
#include <sys/xattr.h>
#endif
