/* gpucensus plan PLAN.cfg [--ranks N] [--nodes M] [--only NAMES]: validate
 * a plan, print every rank's work list and the budgets per GPU and per node
 * (the sim section is the sim backend's: checked by a sim run, not here).
 * Exit 0; 2: bad plan or arguments. */
#ifndef GC_PLAN_CMD_H
#define GC_PLAN_CMD_H

int gc_plan_main(int argc, char **argv);
extern const char gc_plan_usage[];

#endif
