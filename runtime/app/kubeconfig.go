package app

import (
	"fmt"
	"os"
	"path/filepath"

	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"
)

// writeKubeconfig writes to file a kubeconfig whose cluster, user and context are all called
// name, pointing at server ("https://127.0.0.1:6443"), trusting sec's CA and presenting its
// admin client certificate (none for plain HTTP), and makes it the current context. The file
// is replaced atomically and readable by its owner only.
func writeKubeconfig(file, name, server string, sec *security) error {
	cluster := clientcmdv1.Cluster{Server: server, CertificateAuthority: sec.caFile}
	user := clientcmdv1.AuthInfo{ClientCertificate: sec.adminCert, ClientKey: sec.adminKey}
	cfg := clientcmdv1.Config{
		Kind:           "Config",
		APIVersion:     "v1",
		Clusters:       []clientcmdv1.NamedCluster{{Name: name, Cluster: cluster}},
		AuthInfos:      []clientcmdv1.NamedAuthInfo{{Name: name, AuthInfo: user}},
		Contexts:       []clientcmdv1.NamedContext{{Name: name, Context: clientcmdv1.Context{Cluster: name, AuthInfo: name}}},
		CurrentContext: name,
	}
	data, err := yaml.Marshal(&cfg)
	if err != nil {
		return fmt.Errorf("cannot encode kubeconfig: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".kubeconfig-*")
	if err != nil {
		return fmt.Errorf("cannot write kubeconfig: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write kubeconfig: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write kubeconfig: %w", err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("cannot write kubeconfig: %w", err)
	}
	return nil
}
