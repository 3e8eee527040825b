package deploycheck

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"

	apiregistrationv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	"github.com/apigen-dev/apigen/runtime/app"
)

// Check checks m as the deploy manifests of a server built on runtime/app (its flags are
// app.NewOptions' flags) that serves the group versions served, and returns every problem
// found, one line each; none means the manifests fit the server. It checks that:
//
//   - there is one Deployment, of at least two replicas, with one container running the
//     image of the kustomization's images entry, non-root, with resource requests, in a
//     Namespace the manifests create;
//   - every container argument is a --flag of the server, and the arguments parse and pass
//     app.Options.Validate; the server listens on a non-loopback address with a given serving
//     certificate, trusts the front proxy's CA and uses an etcd of its own (--etcd-servers);
//   - the containerPort, the readiness (/readyz) and liveness (/livez) probes over HTTPS, and
//     the targetPort of the Service selecting the pods (port 443) are all --secure-port;
//   - every file a flag names lies under a volume mount (and is a key of the ConfigMap
//     mounted there, when the manifests hold it), the data directory on a writable one;
//   - the ServiceAccount exists and is bound to system:auth-delegator, in kube-system to
//     extension-apiserver-authentication-reader, and to a ClusterRole of the manifests over
//     every served group;
//   - a PodDisruptionBudget keeps at least one replica, below the replicas;
//   - a one-replica StatefulSet etcd with a volume claim template and a headless Service
//     etcd is the etcd --etcd-servers names;
//   - the APIServices, named <version>.<group>, send to the Service, carry a caBundle and
//     cover exactly the served group versions.
func (m *Manifests) Check(served []schema.GroupVersion) []string {
	c := &checker{m: m}
	if !c.deployment() {
		return c.problems
	}
	c.flags()
	if c.opts != nil {
		c.ports()
		c.mounts()
		c.etcd()
	}
	c.service()
	c.rbac(served)
	c.disruptionBudget()
	c.apiServices(served)
	return c.problems
}

// checker is the state of one Check.
type checker struct {
	m         *Manifests
	problems  []string
	ns        string
	deploy    *appsv1.Deployment
	container *corev1.Container
	opts      *app.Options                 // nil when the arguments do not parse
	flagSet   *pflag.FlagSet               // the flags opts was parsed with
	svc       *corev1.Service              // the server's Service, nil when none selects its pods
	cms       map[string]*corev1.ConfigMap // ConfigMaps of ns, by name
}

func (c *checker) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// typed decodes every object of kind (of apiVersion) into a new T.
func typed[T any](c *checker, apiVersion, kind string) []*T {
	var out []*T
	for _, o := range c.m.objects(apiVersion, kind) {
		t := new(T)
		if err := decode(o, t); err != nil {
			c.errorf("%v", err)
			continue
		}
		out = append(out, t)
	}
	return out
}

// deployment finds the server's Deployment, container and namespace; false when there is
// none to check further.
func (c *checker) deployment() bool {
	deploys := typed[appsv1.Deployment](c, "apps/v1", "Deployment")
	if len(deploys) != 1 {
		c.errorf("want one Deployment (the server), found %d", len(deploys))
		return false
	}
	d := deploys[0]
	c.deploy, c.ns = d, d.Namespace
	if c.ns == "" {
		c.errorf("Deployment %s has no namespace", d.Name)
	}
	if ns := c.m.objects("v1", "Namespace"); !slices.ContainsFunc(ns, func(o *unstructured.Unstructured) bool { return o.GetName() == c.ns }) {
		c.errorf("no Namespace %s, the Deployment's", c.ns)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		c.errorf("Deployment %s: want at least 2 replicas", d.Name)
	}
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		c.errorf("Deployment %s: its selector does not select its pods' labels %v", d.Name, d.Spec.Template.Labels)
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		c.errorf("Deployment %s: want one container (the server), found %d", d.Name, len(pod.Containers))
		return false
	}
	c.container = &pod.Containers[0]
	if len(c.m.Images) != 1 {
		c.errorf("%s/kustomization.yaml: want one images entry (the server's), found %d", c.m.Dir, len(c.m.Images))
	} else if want := c.m.Images[0].Ref(); c.container.Image != want {
		c.errorf("Deployment %s runs image %q, not the kustomization's %q", d.Name, c.container.Image, want)
	}
	if len(c.container.Command) != 0 {
		c.errorf("container %s sets command %q: the image's entrypoint is the server", c.container.Name, c.container.Command)
	}
	nonRoot := func(sc *corev1.SecurityContext) bool { return sc != nil && sc.RunAsNonRoot != nil && *sc.RunAsNonRoot }
	podNonRoot := pod.SecurityContext != nil && pod.SecurityContext.RunAsNonRoot != nil && *pod.SecurityContext.RunAsNonRoot
	if !podNonRoot && !nonRoot(c.container.SecurityContext) {
		c.errorf("Deployment %s: runAsNonRoot is not set", d.Name)
	}
	if len(c.container.Resources.Requests) == 0 {
		c.errorf("container %s has no resource requests", c.container.Name)
	}
	c.cms = map[string]*corev1.ConfigMap{}
	for _, cm := range typed[corev1.ConfigMap](c, "v1", "ConfigMap") {
		if cm.Namespace == c.ns {
			c.cms[cm.Name] = cm
		}
	}
	return true
}

// flags parses the container's arguments with the server's flags.
func (c *checker) flags() {
	opts := app.NewOptions()
	fs := pflag.NewFlagSet("apiserver", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts.AddFlags(fs)
	unknown := false
	for _, arg := range c.container.Args {
		name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		switch {
		case !strings.HasPrefix(arg, "--"):
			c.errorf("container argument %q is not a --flag=value", arg)
			unknown = true
		case fs.Lookup(name) == nil:
			c.errorf("container argument %q: --%s is not a flag of the server (runtime/app)", arg, name)
			unknown = true
		}
	}
	if unknown {
		return
	}
	if err := fs.Parse(c.container.Args); err != nil {
		c.errorf("container arguments: %v", err)
		return
	}
	if err := opts.Validate(); err != nil {
		c.errorf("container arguments: %v", err)
	}
	c.opts, c.flagSet = opts, fs
	if ip := net.ParseIP(opts.BindAddress); ip == nil || ip.IsLoopback() {
		c.errorf("--bind-address=%s: the Service cannot reach a loopback address", opts.BindAddress)
	}
	if opts.PlainHTTP {
		c.errorf("--plain-http: the aggregator talks HTTPS to the server")
	}
	if opts.SecurePort == 0 {
		c.errorf("--secure-port=0 picks a free port; the Service needs a fixed one")
	}
	if opts.TLSCertFile == "" {
		c.errorf("no --tls-cert-file: the self-signed certificate does not name the Service")
	}
	if opts.AuthenticationSkipLookup {
		c.errorf("--authentication-skip-lookup: the aggregator's front-proxy requests would not be trusted")
	}
	if len(opts.EtcdServers) == 0 {
		c.errorf("no --etcd-servers: every replica would keep its objects in an embedded etcd of its own")
	}
}

// ports checks the container port and the probes against --secure-port.
func (c *checker) ports() {
	port := int32(c.opts.SecurePort)
	if !slices.ContainsFunc(c.container.Ports, func(p corev1.ContainerPort) bool { return p.ContainerPort == port }) {
		c.errorf("container %s has no containerPort %d (--secure-port)", c.container.Name, port)
	}
	for _, p := range []struct {
		name, path string
		probe      *corev1.Probe
	}{{"readinessProbe", "/readyz", c.container.ReadinessProbe}, {"livenessProbe", "/livez", c.container.LivenessProbe}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			c.errorf("container %s has no HTTP %s", c.container.Name, p.name)
			continue
		}
		get := p.probe.HTTPGet
		if get.Path != p.path || get.Scheme != corev1.URISchemeHTTPS || c.resolve(get.Port) != port {
			c.errorf("%s: want GET %s over HTTPS on port %d (--secure-port), have %s %s on %s", p.name, p.path, port, get.Scheme, get.Path, get.Port.String())
		}
	}
}

// resolve returns the container port p names (a number, or the name of a containerPort),
// or 0.
func (c *checker) resolve(p intstr.IntOrString) int32 {
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.container.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	return 0
}

// mounts checks that every file or directory a flag names lies under a volume mount.
func (c *checker) mounts() {
	volumes := map[string]corev1.Volume{}
	for _, v := range c.deploy.Spec.Template.Spec.Volumes {
		volumes[v.Name] = v
	}
	c.flagSet.Visit(func(f *pflag.Flag) {
		value := f.Value.String()
		if f.Value.Type() != "string" || !path.IsAbs(value) {
			return
		}
		var mount *corev1.VolumeMount
		for i, m := range c.container.VolumeMounts {
			if value == m.MountPath || strings.HasPrefix(value, strings.TrimSuffix(m.MountPath, "/")+"/") {
				mount = &c.container.VolumeMounts[i]
			}
		}
		if mount == nil {
			c.errorf("--%s=%s is under no volume mount of container %s", f.Name, value, c.container.Name)
			return
		}
		vol, ok := volumes[mount.Name]
		switch {
		case !ok:
			c.errorf("volume mount %s of --%s names no volume", mount.Name, f.Name)
		case f.Name == "data-dir" && (mount.ReadOnly || vol.EmptyDir == nil && vol.PersistentVolumeClaim == nil):
			c.errorf("--data-dir=%s: want a writable emptyDir or persistent volume mounted there", value)
		case vol.ConfigMap != nil && c.cms[vol.ConfigMap.Name] != nil:
			key := strings.TrimPrefix(strings.TrimPrefix(value, mount.MountPath), "/")
			cm := c.cms[vol.ConfigMap.Name]
			if _, ok := cm.Data[key]; !ok {
				c.errorf("--%s=%s: ConfigMap %s has no key %q", f.Name, value, cm.Name, key)
			}
		}
	})
}

// service finds the Service that selects the server's pods and checks its ports.
func (c *checker) service() {
	podLabels := labels.Set(c.deploy.Spec.Template.Labels)
	for _, s := range typed[corev1.Service](c, "v1", "Service") {
		if s.Namespace == c.ns && len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(podLabels) {
			if c.svc != nil {
				c.errorf("Services %s and %s both select the server's pods", c.svc.Name, s.Name)
			}
			c.svc = s
		}
	}
	if c.svc == nil {
		c.errorf("no Service in %s selects the server's pods %v", c.ns, c.deploy.Spec.Template.Labels)
		return
	}
	if c.opts == nil {
		return
	}
	found := false
	for _, p := range c.svc.Spec.Ports {
		target := p.TargetPort
		if target.Type == intstr.Int && target.IntVal == 0 {
			target = intstr.FromInt32(p.Port)
		}
		if c.resolve(target) != int32(c.opts.SecurePort) {
			c.errorf("Service %s port %d: targetPort %s is not --secure-port=%d", c.svc.Name, p.Port, target.String(), c.opts.SecurePort)
		}
		found = found || p.Port == 443
	}
	if !found {
		c.errorf("Service %s has no port 443", c.svc.Name)
	}
}

// rbac checks the ServiceAccount and its bindings.
func (c *checker) rbac(served []schema.GroupVersion) {
	sa := c.deploy.Spec.Template.Spec.ServiceAccountName
	if sa == "" || sa == "default" {
		c.errorf("Deployment %s runs as the default ServiceAccount: give it one of its own", c.deploy.Name)
		return
	}
	if !slices.ContainsFunc(c.m.objects("v1", "ServiceAccount"), func(o *unstructured.Unstructured) bool {
		return o.GetName() == sa && o.GetNamespace() == c.ns
	}) {
		c.errorf("no ServiceAccount %s/%s, the Deployment's", c.ns, sa)
	}
	bindsSA := func(subjects []rbacv1.Subject) bool {
		return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
			return s.Kind == "ServiceAccount" && s.Name == sa && s.Namespace == c.ns
		})
	}
	clusterBindings := typed[rbacv1.ClusterRoleBinding](c, "rbac.authorization.k8s.io/v1", "ClusterRoleBinding")
	var boundRoles []string
	for _, b := range clusterBindings {
		if b.RoleRef.Kind == "ClusterRole" && bindsSA(b.Subjects) {
			boundRoles = append(boundRoles, b.RoleRef.Name)
		}
	}
	if !slices.Contains(boundRoles, "system:auth-delegator") {
		c.errorf("no ClusterRoleBinding of ServiceAccount %s/%s to the ClusterRole system:auth-delegator", c.ns, sa)
	}
	if !slices.ContainsFunc(typed[rbacv1.RoleBinding](c, "rbac.authorization.k8s.io/v1", "RoleBinding"), func(b *rbacv1.RoleBinding) bool {
		return b.Namespace == "kube-system" && b.RoleRef.Kind == "Role" && b.RoleRef.Name == "extension-apiserver-authentication-reader" && bindsSA(b.Subjects)
	}) {
		c.errorf("no RoleBinding in kube-system of ServiceAccount %s/%s to the Role extension-apiserver-authentication-reader", c.ns, sa)
	}
	var own *rbacv1.ClusterRole
	for _, r := range typed[rbacv1.ClusterRole](c, "rbac.authorization.k8s.io/v1", "ClusterRole") {
		if slices.Contains(boundRoles, r.Name) {
			own = r
		}
	}
	if own == nil {
		c.errorf("no ClusterRole of the manifests is bound to ServiceAccount %s/%s (its own resources)", c.ns, sa)
		return
	}
	for _, g := range groupsOf(served) {
		if !slices.ContainsFunc(own.Rules, func(r rbacv1.PolicyRule) bool {
			return (slices.Contains(r.APIGroups, g) || slices.Contains(r.APIGroups, "*")) && len(r.Resources) > 0 && len(r.Verbs) > 0
		}) {
			c.errorf("ClusterRole %s has no rule over the served group %s", own.Name, g)
		}
	}
}

// disruptionBudget checks the PodDisruptionBudget of the server's pods.
func (c *checker) disruptionBudget() {
	for _, p := range typed[policyv1.PodDisruptionBudget](c, "policy/v1", "PodDisruptionBudget") {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if p.Namespace != c.ns || err != nil || !sel.Matches(labels.Set(c.deploy.Spec.Template.Labels)) {
			continue
		}
		replicas := int32(1)
		if c.deploy.Spec.Replicas != nil {
			replicas = *c.deploy.Spec.Replicas
		}
		if p.Spec.MinAvailable == nil || p.Spec.MinAvailable.Type != intstr.Int || p.Spec.MinAvailable.IntVal < 1 || p.Spec.MinAvailable.IntVal >= replicas {
			c.errorf("PodDisruptionBudget %s: want minAvailable between 1 and the %d replicas, exclusive", p.Name, replicas)
		}
		return
	}
	c.errorf("no PodDisruptionBudget in %s selects the server's pods", c.ns)
}

// etcd checks the etcd StatefulSet, its headless Service, and that --etcd-servers names it.
func (c *checker) etcd() {
	var sts *appsv1.StatefulSet
	for _, s := range typed[appsv1.StatefulSet](c, "apps/v1", "StatefulSet") {
		if s.Name == "etcd" && s.Namespace == c.ns {
			sts = s
		}
	}
	if sts == nil {
		c.errorf("no StatefulSet etcd in %s", c.ns)
		return
	}
	if sts.Spec.Replicas == nil || *sts.Spec.Replicas != 1 {
		c.errorf("StatefulSet etcd: want 1 replica")
	}
	if len(sts.Spec.VolumeClaimTemplates) == 0 {
		c.errorf("StatefulSet etcd has no volumeClaimTemplates: its data would not outlive the pod")
	}
	if cs := sts.Spec.Template.Spec.Containers; len(cs) != 1 || !strings.HasPrefix(cs[0].Image, "registry.k8s.io/etcd:") {
		c.errorf("StatefulSet etcd: want one container of image registry.k8s.io/etcd:<version>")
	}
	var svc *corev1.Service
	for _, s := range typed[corev1.Service](c, "v1", "Service") {
		if s.Name == sts.Spec.ServiceName && s.Namespace == c.ns {
			svc = s
		}
	}
	if svc == nil || svc.Spec.ClusterIP != corev1.ClusterIPNone {
		c.errorf("StatefulSet etcd: no headless Service %q (clusterIP: None) in %s", sts.Spec.ServiceName, c.ns)
		return
	}
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(sts.Spec.Template.Labels)) || len(svc.Spec.Selector) == 0 {
		c.errorf("Service %s does not select the etcd pods", svc.Name)
	}
	hosts := []string{svc.Name, svc.Name + "." + c.ns, svc.Name + "." + c.ns + ".svc", svc.Name + "." + c.ns + ".svc.cluster.local"}
	for _, s := range c.opts.EtcdServers {
		u, err := url.Parse(s)
		if err != nil || !slices.Contains(hosts, u.Hostname()) ||
			!slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return fmt.Sprint(p.Port) == u.Port() }) {
			c.errorf("--etcd-servers=%s does not name a port of the Service %s.%s.svc", s, svc.Name, c.ns)
		}
	}
}

// apiServices checks the APIServices against the served group versions and the Service.
func (c *checker) apiServices(served []schema.GroupVersion) {
	have := map[schema.GroupVersion]bool{}
	for _, o := range c.m.objects("apiregistration.k8s.io/v1", "APIService") {
		var a apiregistrationv1.APIService
		if err := decode(o, &a); err != nil {
			c.errorf("%v", err)
			continue
		}
		gv := schema.GroupVersion{Group: a.Spec.Group, Version: a.Spec.Version}
		if have[gv] {
			c.errorf("two APIServices for %s", gv)
		}
		have[gv] = true
		if a.Name != gv.Version+"."+gv.Group {
			c.errorf("APIService %s: want the name %s.%s", a.Name, gv.Version, gv.Group)
		}
		if !slices.Contains(served, gv) {
			c.errorf("APIService %s registers %s, which the server does not serve", a.Name, gv)
		}
		s := a.Spec.Service
		switch {
		case s == nil:
			c.errorf("APIService %s names no service: it would be served locally by the cluster", a.Name)
		case c.svc == nil:
		case s.Name != c.svc.Name || s.Namespace != c.svc.Namespace:
			c.errorf("APIService %s sends to the Service %s/%s, not the server's %s/%s", a.Name, s.Namespace, s.Name, c.svc.Namespace, c.svc.Name)
		default:
			port := int32(443)
			if s.Port != nil {
				port = *s.Port
			}
			if !slices.ContainsFunc(c.svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Port == port }) {
				c.errorf("APIService %s: Service %s has no port %d", a.Name, c.svc.Name, port)
			}
		}
		if a.Spec.GroupPriorityMinimum < 1 || a.Spec.GroupPriorityMinimum > 20000 || a.Spec.VersionPriority < 1 || a.Spec.VersionPriority > 1000 {
			c.errorf("APIService %s: groupPriorityMinimum (1-20000) or versionPriority (1-1000) out of range", a.Name)
		}
		if a.Spec.InsecureSkipTLSVerify {
			c.errorf("APIService %s: insecureSkipTLSVerify; give a caBundle", a.Name)
		}
		if _, ok, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "caBundle"); !ok {
			c.errorf("APIService %s has no caBundle (the kustomization's patch sets it)", a.Name)
		}
	}
	var missing []string
	for _, gv := range served {
		if !have[gv] {
			missing = append(missing, gv.String())
		}
	}
	sort.Strings(missing)
	for _, gv := range missing {
		c.errorf("no APIService for %s, which the server serves", gv)
	}
}

// groupsOf returns the distinct groups of gvs, sorted.
func groupsOf(gvs []schema.GroupVersion) []string {
	var out []string
	for _, gv := range gvs {
		if !slices.Contains(out, gv.Group) {
			out = append(out, gv.Group)
		}
	}
	sort.Strings(out)
	return out
}
