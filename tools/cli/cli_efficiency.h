/* cli_efficiency.h: `strata analyze`'s efficiency (tools/cli/cli_efficiency.c). */
#ifndef STRATA_CLI_EFFICIENCY_H
#define STRATA_CLI_EFFICIENCY_H

#include "cli.h"
#include "efficiency.h"

/* The efficiency of the analysis of the set's files (their args read from
 * the files); NULL on failure. */
st_efficiency *cli_efficiency(const st_analysis *an, const cli_set *cs, const st_eff_opts *o);
/* Its peaks, ops table and steps' MFU as text. */
void cli_efficiency_text(const st_efficiency *e, int wide);

#endif
