/* gpucensus predict CATALOGUE KERNEL.cfg [--json]
 * gpucensus predict CATALOGUE --bytes N [--json]
 * A kernel's time on every GPU of a catalogue with both models, or a
 * transfer's time on every link of it with the links' fitted models.
 * Exit 0; 2: bad arguments or kernel description; 3: unreadable catalogue. */
#ifndef GC_PREDICT_CMD_H
#define GC_PREDICT_CMD_H

int gc_predict_main(int argc, char **argv);
extern const char gc_predict_usage[];

#endif
