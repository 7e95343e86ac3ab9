#!/bin/bash
# ocp-e2e's PstChkUpgrade step: KUBECONFIG, ARTIFACT_DIR and SHARED_DIR come from ci-operator.
set -o nounset
set -o errexit
set -o pipefail

# What the pre step handed on, for the log: the checkpoint itself is read from the cluster.
for file in "${SHARED_DIR}"/ocp-e2e-checkpoint-*; do
  [[ -f "${file}" ]] && echo "checkpoint from the pre step: $(basename "${file}")"
done

args=(run --target cluster --kubeconfig "${KUBECONFIG}" --allow-disruptive --phase post --reports-dir "${ARTIFACT_DIR}/ocp-e2e-post")
if [[ -n "${OCP_E2E_GREP:-}" ]]; then args+=(--grep "${OCP_E2E_GREP}"); fi
# shellcheck disable=SC2206 # split on spaces on purpose
if [[ -n "${OCP_E2E_ARGS:-}" ]]; then args+=(${OCP_E2E_ARGS}); fi
exec ocp-e2e "${args[@]}"
