/*
 * opencv_gather.cpp — clgather inside OpenCV's OpenCL (the T-API).
 *
 * OpenCV owns the OpenCL context, device and command queue, and a cv::UMat
 * owns its cl_mem. This program borrows them, as any code that adds a
 * kernel to an OpenCV pipeline would:
 *
 *   1. clgather's context is created on OpenCV's default cl_context and
 *      device (cv::ocl::Context::getDefault().ptr(),
 *      cv::ocl::Device::getDefault().ptr()); clgather retains both, OpenCV
 *      keeps its own references.
 *   2. A table lives in a region of interest of a larger UMat (rows `step`
 *      bytes apart, starting `offset` bytes into the parent's cl_mem); the
 *      row indices (int32) in another UMat; both are filled by OpenCV on its
 *      queue (copyTo, setTo), without a host wait.
 *   3. clgather gathers the rows (ONNX Gather, axis 0) from UMat to UMat on
 *      OpenCV's own queue (cv::ocl::Queue::getDefault().ptr()), the UMats'
 *      cl_mem taken with handle() and described with their offset and step
 *      (a strided tensor, so that any ROI works); the in-order queue orders
 *      it after OpenCV's commands and before OpenCV's read of the result.
 *   4. The result equals, byte for byte, the same rows copied on the host
 *      with cv::Mat.
 *   5. With one index out of bounds (synchronous clg_run, then the
 *      asynchronous clg_run_async with its outcome), the call reports
 *      CLG_ERROR_INDEX_OUT_OF_BOUNDS with its message, printed, and the
 *      output UMat is exactly as it was (its fill).
 *
 * Exit status: 0 when all of that holds; 1 otherwise, including when OpenCV
 * finds no OpenCL device (a failure, not a skip: OpenCV falls back to the
 * CPU silently, and there would be nothing to test). OpenCV looks for a GPU
 * only, unless OPENCV_OPENCL_DEVICE says otherwise: on POCL's CPU device
 * set it to ":CPU:", or "::" (a GPU, else a CPU device; ctest's choice).
 */
#include <clgather/clgather.h>

#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

const int ROWS = 1000, COLS = 64; // the table, CV_32F
const int NIDX = 3000;            // rows gathered
const int BAD_POS = 1234, BAD_VALUE = ROWS + 2;
const float SENTINEL = -7.5f; // the output's fill before each call

bool clg_failed(const char *what, clg_status st) {
  std::fprintf(stderr, "opencv_gather: %s failed: %s: %s\n", what,
               clg_status_string(st), clg_last_error());
  return false;
}

// A 2-D UMat of CV_32F or CV_32S as a clgather tensor on its cl_mem: its
// rows are umat.step bytes apart (a ROI of a wider UMat: more than its
// width), its first element umat.offset bytes into the buffer. handle()
// returns the cl_mem of the whole allocation (the parent's, for a ROI) and,
// for ACCESS_WRITE, tells OpenCV that its host copy (if any) is stale.
clg_strided_tensor umat_tensor(const cv::UMat &m, clg_dtype dtype,
                               cv::AccessFlag access) {
  int64_t shape[2] = {m.rows, m.cols};
  int64_t strides[2] = {(int64_t)(m.step / m.elemSize()), 1};
  clg_tensor dense = clg_tensor_buffer(
      dtype, 2, shape, static_cast<cl_mem>(m.handle(access)), m.offset);
  return clg_tensor_strided(&dense, strides);
}

// The indices: (i * 7 + 3) % ROWS, every odd one as its negative twin (ONNX
// counts -1 as the last row); at bad_pos (-1: none) one past the last row.
cv::Mat make_indices(int bad_pos) {
  cv::Mat idx(1, NIDX, CV_32S);
  for (int i = 0; i < NIDX; i++) {
    int v = (i * 7 + 3) % ROWS;
    if (i % 2 == 1)
      v -= ROWS;
    idx.at<int>(0, i) = i == bad_pos ? BAD_VALUE : v;
  }
  return idx;
}

// The host's answer, with cv::Mat: row k of the result is row idx[k]
// (negative counted from the end) of the table.
cv::Mat host_gather(const cv::Mat &table, const cv::Mat &idx) {
  cv::Mat out(idx.cols, table.cols, table.type());
  for (int k = 0; k < idx.cols; k++) {
    int r = idx.at<int>(0, k);
    table.row(r < 0 ? r + table.rows : r).copyTo(out.row(k));
  }
  return out;
}

bool same_bytes(const cv::Mat &a, const cv::Mat &b) {
  if (a.size() != b.size() || a.type() != b.type())
    return false;
  for (int r = 0; r < a.rows; r++)
    if (std::memcmp(a.ptr(r), b.ptr(r), a.cols * a.elemSize()) != 0)
      return false;
  return true;
}

// Gather `idx` rows of `table` into `out`, all UMats, on OpenCV's queue:
// synchronous (clg_run: returns once the verdict is known) or asynchronous
// (clg_run_async, then clg_outcome_wait for the verdict). Returns the
// status; on an error clg_last_error() is this thread's message.
clg_status gather_umat(clg_context *ctx, cl_command_queue queue,
                       const cv::UMat &table, const cv::UMat &idx,
                       cv::UMat &out, bool async) {
  clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  clg_strided_tensor d = umat_tensor(table, CLG_DTYPE_FLOAT, cv::ACCESS_READ);
  // The indices: a 1-D tensor of idx.cols int32 (a 1 x N UMat, dense).
  int64_t nidx = idx.cols;
  clg_tensor x = clg_tensor_buffer(
      CLG_DTYPE_INT32, 1, &nidx,
      static_cast<cl_mem>(idx.handle(cv::ACCESS_READ)), idx.offset);
  clg_strided_tensor o = umat_tensor(out, CLG_DTYPE_FLOAT, cv::ACCESS_WRITE);
  if (!async)
    return clg_run(ctx, &p, &d.tensor, &x, &o.tensor, queue, 0, nullptr,
                   nullptr);
  clg_outcome *outcome = nullptr;
  clg_status st = clg_run_async(ctx, &p, &d.tensor, &x, &o.tensor, queue, 0,
                                nullptr, nullptr, &outcome);
  if (st != CLG_SUCCESS)
    return st;
  // The verdict, before anything reads `out` (OpenCV's reads are queued
  // after the gather on the same in-order queue, so they see its result).
  st = clg_outcome_wait(outcome);
  if (st != CLG_SUCCESS) {
    // The message belongs to this thread until its next clgather call,
    // and clg_outcome_release is one: print it first.
    std::printf("opencv_gather: bad index (async): %s: %s\n",
                clg_status_string(st), clg_last_error());
  }
  clg_outcome_release(outcome);
  return st;
}

bool run(clg_context *ctx, cl_command_queue queue) {
  // The table: a ROI of a wider, taller UMat (offset and step not its own).
  cv::Mat table(ROWS, COLS, CV_32F);
  cv::randu(table, cv::Scalar(-1000), cv::Scalar(1000));
  cv::UMat parent(ROWS + 5, COLS + 16, CV_32F, cv::Scalar(0));
  cv::UMat utable = parent(cv::Rect(8, 3, COLS, ROWS));
  table.copyTo(utable);
  if (utable.offset == 0 || utable.step == COLS * sizeof(float)) {
    std::fprintf(stderr, "opencv_gather: the ROI is dense\n");
    return false;
  }
  cv::UMat out(NIDX, COLS, CV_32F);
  bool ok = true;

  for (int async = 0; async <= 1; async++) {
    const char *how = async ? "clg_run_async" : "clg_run";
    // A good run: every row equals the host's cv::Mat gather.
    cv::Mat idx = make_indices(-1);
    cv::UMat uidx;
    idx.copyTo(uidx);
    out.setTo(cv::Scalar(SENTINEL));
    clg_status st = gather_umat(ctx, queue, utable, uidx, out, async);
    if (st != CLG_SUCCESS)
      return clg_failed(how, st);
    cv::Mat got = out.getMat(cv::ACCESS_READ).clone();
    if (!same_bytes(got, host_gather(table, idx))) {
      std::fprintf(stderr, "opencv_gather: %s: rows differ from cv::Mat's\n",
                   how);
      ok = false;
    } else {
      std::printf("opencv_gather: %s: %d rows of %d floats from a ROI at "
                  "offset %zu, step %zu: equal to cv::Mat's\n",
                  how, NIDX, COLS, utable.offset, (size_t)utable.step);
    }

    // A bad index: the call says so, and `out` keeps its fill.
    cv::Mat bad = make_indices(BAD_POS);
    bad.copyTo(uidx);
    out.setTo(cv::Scalar(SENTINEL));
    cv::Mat before = out.getMat(cv::ACCESS_READ).clone();
    st = gather_umat(ctx, queue, utable, uidx, out, async);
    if (st != CLG_ERROR_INDEX_OUT_OF_BOUNDS) {
      std::fprintf(stderr,
                   "opencv_gather: %s: a bad index gave %s, not "
                   "CLG_ERROR_INDEX_OUT_OF_BOUNDS\n",
                   how, clg_status_string(st));
      ok = false;
      continue;
    }
    if (!async)
      std::printf("opencv_gather: bad index (sync): %s: %s\n",
                  clg_status_string(st), clg_last_error());
    cv::Mat after = out.getMat(cv::ACCESS_READ).clone();
    if (!same_bytes(before, after)) {
      std::fprintf(stderr,
                   "opencv_gather: %s: the output changed after an "
                   "error\n",
                   how);
      ok = false;
    } else {
      std::printf("opencv_gather: %s: the output UMat is as it was\n", how);
    }
  }
  return ok;
}

} // namespace

int main() {
  // OpenCV's OpenCL: a device, or a failure (not a quiet CPU fallback).
  cv::ocl::setUseOpenCL(true);
  if (!cv::ocl::haveOpenCL() || !cv::ocl::useOpenCL()) {
    std::fprintf(stderr,
                 "opencv_gather: OpenCV finds no OpenCL device "
                 "(it looks for a GPU only unless OPENCV_OPENCL_DEVICE is set, "
                 "e.g. to :CPU: or ::)\n");
    return 1;
  }
  cv::ocl::Context &ocv_context = cv::ocl::Context::getDefault();
  const cv::ocl::Device &ocv_device = cv::ocl::Device::getDefault();
  cv::ocl::Queue &ocv_queue = cv::ocl::Queue::getDefault();
  cl_context cl_ctx = static_cast<cl_context>(ocv_context.ptr());
  cl_device_id cl_dev = static_cast<cl_device_id>(ocv_device.ptr());
  cl_command_queue cl_q = static_cast<cl_command_queue>(ocv_queue.ptr());
  if (!cl_ctx || !cl_dev || !cl_q) {
    std::fprintf(stderr, "opencv_gather: OpenCV has no OpenCL context, "
                         "device or queue\n");
    return 1;
  }
  std::printf("opencv_gather: OpenCV %s on %s (%s)\n", CV_VERSION,
              ocv_device.name().c_str(), ocv_device.version().c_str());

  clg_context *ctx = nullptr;
  clg_status st = clg_context_create(cl_ctx, cl_dev, &ctx);
  if (st != CLG_SUCCESS) {
    clg_failed("clg_context_create", st);
    return 1;
  }
  bool ok = run(ctx, cl_q);
  // After every UMat of run() is gone; OpenCV's context outlives this
  // anyway, and clgather's holds its own reference to it.
  clg_context_destroy(ctx);
  std::printf("opencv_gather: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
