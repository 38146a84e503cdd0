// SPDX-License-Identifier: Apache-2.0
#version 450
// native_vulkan's triad: a = b + s * c, 256 invocations a group; the groups
// may be laid out in 2D when there are more than the device allows in x.
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) readonly buffer C { float c[]; };
layout(push_constant) uniform Push {
  float s;
  uint n;
};
void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint i = group * 256u + gl_LocalInvocationID.x;
  if (i < n) a[i] = b[i] + s * c[i];
}
