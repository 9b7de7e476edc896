/* EmbeddingBag: PyTorch's embedding_bag, TensorFlow's sparse segment
 * reductions (clgather/clgather_bag.h). */
#include "ops/embedding_bag.h"

static bool embedding_bag_supported(int32_t data_rank, int32_t indices_rank) {
  return data_rank == 2 && (indices_rank == 1 || indices_rank == 2);
}

const clg_op_impl clg__op_embedding_bag = {
    .supported = embedding_bag_supported,
};
