/** The bug report's steps as a person types them: its Dockerfile and its MachineConfig command, word for word but for the base image and the registry. */

/** Step 2 of the report, word for word but for the FROM line (the base image found in step 1). */
export function reportDockerfile(base: string): string {
  return `FROM ${base}

RUN printf '[baseos]\\nname=CentOS-$releasever - Base\\nbaseurl=http://mirror.centos.org/centos/$releasever-stream/BaseOS/$basearch/os/\\ngpgcheck=0\\nenabled=1\\n\\n[appstream]\\nname=CentOS-$releasever - AppStream\\nbaseurl=http://mirror.centos.org/centos/$releasever-stream/AppStream/$basearch/os/\\ngpgcheck=0\\nenabled=1\\n\\n' > /etc/yum.repos.d/centos.repo && \\
    rpm-ostree install zsh && \\
    rpm-ostree cleanup -m && \\
    ostree container commit
`;
}

/** Steps 3 and 4 of the report, word for word but for the image's registry. */
export function reportMachineConfigCommand(role: 'worker' | 'master', image: string): string {
  return `cat <<EOF | oc create -f -
kind: MachineConfig
apiVersion: machineconfiguration.openshift.io/v1
metadata:
  labels:
    machineconfiguration.openshift.io/role: "${role}"
  name: "tc-54183-new-os-image-upgrade-${role}"
spec:
  osImageURL: "${image}"
EOF`;
}
