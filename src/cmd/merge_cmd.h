/* gpucensus merge SHARDS_DIR -o OUT: rebuild a catalogue and its node
 * files from the shards alone. Exit 0; 1: the merge failed; 2: bad arguments. */
#ifndef GC_MERGE_CMD_H
#define GC_MERGE_CMD_H

int gc_merge_main(int argc, char **argv);
extern const char gc_merge_usage[];

#endif
