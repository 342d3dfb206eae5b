// The mail listeners, each in protocols/<name>/. Order matters only for the start-up log.
import type { ListenerFactory } from "./listeners";

export const protocolListeners: ListenerFactory[] = [];
