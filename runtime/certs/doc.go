// Package certs makes the certificates a server serves with when it is given none, as
// kube-apiserver's self-signed serving certificate (MaybeDefaultWithSelfSignedCerts): a CA,
// a serving certificate it signs for the server's addresses, and an admin client certificate
// (group system:masters) for the kubeconfig, written to a directory and reused on restart;
// and, with EnsureEtcd, a separate CA, member and client certificates that an embedded etcd
// member requires of its clients (etcdctl).
//
// runtime/app serves HTTPS with them from <data-dir>/pki unless --tls-cert-file is given, and
// writes <data-dir>/kubeconfig, which trusts the CA and presents the admin certificate.
package certs
