/* Tool version; the git commit comes from the build (build/gen). */
#ifndef GC_VERSION_H
#define GC_VERSION_H

#define GC_VERSION "0.1.0"
#include "gen_version.h"

#endif
