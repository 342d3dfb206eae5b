// The storage block of the inbox resource: {used_bytes, quota_bytes, state}.
// state: normal below 90 %, warning from 90 %, full at or above the quota.
export type StorageState = "normal" | "warning" | "full";

export function storageState(used: number, quota: number): StorageState {
  if (used >= quota) return "full";
  if (used >= quota * 0.9) return "warning";
  return "normal";
}

export function storageBlock(used: number, quota: number) {
  return { used_bytes: Math.max(0, used), quota_bytes: quota, state: storageState(used, quota) };
}
