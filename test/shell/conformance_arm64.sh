#!/usr/bin/env bash
# rdma-core 44.0's own test suite on arm64, a subset (make check-arm64's
# shell stage): its pyverbs cross-built and linked stock and through
# build/arm64's archive, run both ways in the arm64 guest on rxe, every
# test's verdict and skip reason compared (scripts/conformance/arm64.sh,
# docs/conformance.md).  The subset is what a few minutes of TCG allow:
# VS_CONFORMANCE_ARM64_TESTS (run_tests.py's test names) changes it;
# make check-conformance ARCH=arm64 runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f build/arm64/libverbshim.a ] || { echo "no build/arm64/libverbshim.a: run make ARCH=arm64"; exit 1; }
exec scripts/conformance/arm64.sh --tests "${VS_CONFORMANCE_ARM64_TESTS:-test_device test_pd test_mr test_cq test_cqex test_qp test_qpex test_rdmacm}"
