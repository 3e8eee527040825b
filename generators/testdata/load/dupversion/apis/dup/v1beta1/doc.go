// +groupName=dup.example.com
// +versionName=v1
package v1beta1
