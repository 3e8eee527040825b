// +groupName=shop.example.com
// +versionName=v1beta1
package v1beta1
