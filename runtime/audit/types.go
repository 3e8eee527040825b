package audit

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Level is how much of a request is recorded, as audit.k8s.io/v1 Level.
type Level string

// The levels, from nothing to everything.
const (
	LevelNone            Level = "None"
	LevelMetadata        Level = "Metadata"
	LevelRequest         Level = "Request"
	LevelRequestResponse Level = "RequestResponse"
)

// atLeast reports whether l records at least what other does.
func (l Level) atLeast(other Level) bool { return rank[l] >= rank[other] }

var rank = map[Level]int{LevelNone: 0, LevelMetadata: 1, LevelRequest: 2, LevelRequestResponse: 3}

// Stage is when in a request's life an event is recorded, as audit.k8s.io/v1 Stage.
type Stage string

// The stages.
const (
	StageRequestReceived  Stage = "RequestReceived"
	StageResponseStarted  Stage = "ResponseStarted" // long-running requests (watches) only
	StageResponseComplete Stage = "ResponseComplete"
	StagePanic            Stage = "Panic"
)

// Event is one audit.k8s.io/v1 Event, with its JSON field names (k8s.io/apiserver's
// pkg/apis/audit/v1 Event).
type Event struct {
	metav1.TypeMeta `json:",inline"`
	Level           Level    `json:"level"`
	AuditID         string   `json:"auditID"`
	Stage           Stage    `json:"stage"`
	RequestURI      string   `json:"requestURI"`
	Verb            string   `json:"verb"`
	User            UserInfo `json:"user"`
	// ImpersonatedUser is who the request acted as (Impersonate-* headers); User stays the
	// authenticated user.
	ImpersonatedUser *UserInfo        `json:"impersonatedUser,omitempty"`
	SourceIPs        []string         `json:"sourceIPs,omitempty"`
	UserAgent        string           `json:"userAgent,omitempty"`
	ObjectRef        *ObjectReference `json:"objectRef,omitempty"`
	// ResponseStatus has the response code, and for an error (a metav1.Status body) its
	// status, message, reason and details.
	ResponseStatus *metav1.Status `json:"responseStatus,omitempty"`
	// RequestObject and ResponseObject are the bodies, at levels Request and
	// RequestResponse, when they are JSON.
	RequestObject            json.RawMessage  `json:"requestObject,omitempty"`
	ResponseObject           json.RawMessage  `json:"responseObject,omitempty"`
	RequestReceivedTimestamp metav1.MicroTime `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime `json:"stageTimestamp"`
	// Annotations are set by the filters and handlers the request went through, e.g.
	// authorization.k8s.io/decision and authorization.k8s.io/reason.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// metaEventList is an EventList's apiVersion and kind.
var metaEventList = metav1.TypeMeta{APIVersion: "audit.k8s.io/v1", Kind: "EventList"}

// EventList is what the webhook backend sends, as audit.k8s.io/v1 EventList.
type EventList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Event `json:"items"`
}

// UserInfo is the authenticated user, as authentication.k8s.io/v1 UserInfo.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// ObjectReference names what a resource request addressed, as audit.k8s.io/v1.
type ObjectReference struct {
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Subresource     string `json:"subresource,omitempty"`
}

// Policy is an audit.k8s.io/v1 Policy: the first rule matching a request gives its level;
// no match is None. OmitStages are never recorded, for any rule; OmitManagedFields leaves
// metadata.managedFields out of the request and response bodies recorded, unless a rule
// says otherwise.
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Rules             []PolicyRule `json:"rules"`
	OmitStages        []Stage      `json:"omitStages,omitempty"`
	OmitManagedFields bool         `json:"omitManagedFields,omitempty"`
}

// PolicyRule matches requests; every non-empty list must match. As audit.k8s.io/v1
// PolicyRule.
type PolicyRule struct {
	Level      Level            `json:"level"`
	Users      []string         `json:"users,omitempty"`
	UserGroups []string         `json:"userGroups,omitempty"`
	Verbs      []string         `json:"verbs,omitempty"`
	Resources  []GroupResources `json:"resources,omitempty"`
	// Namespaces: "" matches cluster-scoped requests.
	Namespaces []string `json:"namespaces,omitempty"`
	// NonResourceURLs match paths exactly or, ending in "*", by prefix.
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
	OmitStages      []Stage  `json:"omitStages,omitempty"`
	// OmitManagedFields, when set, overrides the policy's OmitManagedFields for this rule.
	OmitManagedFields *bool `json:"omitManagedFields,omitempty"`
}

// GroupResources match resources of one API group ("" is core, "*" any): Resources
// ("databases", "databases/status", "*/status", "databases/*", "*", empty for all) and
// ResourceNames (empty for all).
type GroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}
