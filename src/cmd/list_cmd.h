/* gpucensus list [PLAN.cfg...]: what can be measured and how long it takes.
 * The benchmarks this build knows (registry: what each measures, its phase,
 * its points and their units: census/metrics), then the plans (those in
 * the installed configs, or the ones given) with their budgets per GPU and
 * per 8-GPU node, the arithmetic of `gpucensus plan` (gc_plan_budget_of).
 * Exit 0; 2 bad arguments or a given plan that does not load. */
#ifndef GC_LIST_CMD_H
#define GC_LIST_CMD_H

int gc_list_main(int argc, char **argv);
extern const char gc_list_usage[];

#endif
