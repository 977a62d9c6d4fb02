/* cli_collectives.h: where `strata analyze` reads the files' args for the
 * collectives (cli_collectives.c). */
#ifndef STRATA_CLI_COLLECTIVES_H
#define STRATA_CLI_COLLECTIVES_H

#include "collectives.h"

typedef struct cli_coll_file cli_coll_file;

/* One source per file of cs (NULL on allocation failure); free both with
 * cli_coll_sources_free. */
st_coll_source *cli_coll_sources(const cli_set *cs, cli_coll_file **files);
/* Frees file k's bytes (read again if asked again). */
void cli_coll_file_drop(cli_coll_file *f, uint32_t k);
void cli_coll_sources_free(st_coll_source *s, cli_coll_file *f, uint32_t n);

#endif
