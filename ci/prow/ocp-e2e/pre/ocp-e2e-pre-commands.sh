#!/bin/bash
# ocp-e2e's PreChkUpgrade step. ci-operator sets KUBECONFIG (the cluster under test), ARTIFACT_DIR (collected after
# the step) and SHARED_DIR (handed to the later steps); the step's env block sets the OCP_E2E_* variables.
set -o nounset
set -o errexit
set -o pipefail

args=(run --target cluster --kubeconfig "${KUBECONFIG}" --allow-disruptive --phase pre --reports-dir "${ARTIFACT_DIR}/ocp-e2e-pre")
if [[ -n "${OCP_E2E_IMAGE_REPO:-}" ]]; then args+=(--image-repo "${OCP_E2E_IMAGE_REPO}"); fi
registry_auth=/var/run/ocp-e2e-registry/.dockerconfigjson
if [[ -f "${registry_auth}" ]]; then args+=(--pull-secret "${registry_auth}"); fi
if [[ -n "${OCP_E2E_GREP:-}" ]]; then args+=(--grep "${OCP_E2E_GREP}"); fi
# shellcheck disable=SC2206 # split on spaces on purpose: the variable holds several options
if [[ -n "${OCP_E2E_ARGS:-}" ]]; then args+=(${OCP_E2E_ARGS}); fi

status=0
ocp-e2e "${args[@]}" || status=$?
# The checkpoint lives on the cluster; the copy in SHARED_DIR is for the post step's log and for people reading the job.
if compgen -G "${ARTIFACT_DIR}/ocp-e2e-pre/checkpoints/*" >/dev/null; then
  cp "${ARTIFACT_DIR}"/ocp-e2e-pre/checkpoints/* "${SHARED_DIR}/"
fi
exit "${status}"
