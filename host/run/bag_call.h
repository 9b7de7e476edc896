/* run/: EmbeddingBag's call as run/embedding_bag.c runs it and
 * run/bag_checks.c checks it: its operands, their facts once checked, and
 * its geometry. Not installed. */
#ifndef CLGATHER_HOST_RUN_BAG_CALL_H
#define CLGATHER_HOST_RUN_BAG_CALL_H

#include "ops/embedding_bag.h"

enum { BAG_WEIGHT, BAG_INDICES, BAG_BAGS, BAG_PSW, BAG_INPUTS };

typedef struct clg_bag_call {
  const clg_tensor *in[BAG_INPUTS];
  const char *names[BAG_INPUTS];
  clg_tensor_facts inf[BAG_INPUTS];
  const clg_tensor *output;
  clg_tensor_facts of;
  clg_bag_geom g;
  cl_command_queue queue;
  int64_t w_ld, o_ld; /* row pitches (run/bag_strided.c); 0: dense */
} clg_bag_call;

/* The call of these operands (bags and per_sample_weights may be NULL),
 * named as its messages name them; nothing checked yet. */
clg_bag_call clg__bag_call_of(const clg_bag_params *params,
                              const clg_tensor *weight,
                              const clg_tensor *indices, const clg_tensor *bags,
                              const clg_tensor *psw, const clg_tensor *output);
/* Every check that reads no value, filling c's facts, geometry and queue;
 * `templates` (a plan's, bag_plans.c): every one that looks at no memory
 * (no buffer, overlap or queue). */
clg_status clg__bag_check_call(clg_context *ctx, const clg_bag_params *params,
                               cl_command_queue queue, cl_uint num_events,
                               const cl_event *wait_list, clg_bag_call *c,
                               bool templates);

#endif /* CLGATHER_HOST_RUN_BAG_CALL_H */
