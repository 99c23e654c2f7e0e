export { SIMULATED_DOCS, SIMULATED_SYSTEM_MESSAGE } from "./answers.ts";
export type { ChatCall } from "./chat.ts";
export { FAULT_DIRECTIVES, type Faults, parseFaults } from "./faults.ts";
export { SIMULATOR_LANGUAGE_CODES } from "./languages.ts";
export { leadFields, type SimLead, type SimLeadInput } from "./leads.ts";
export {
  SIMULATOR_CODES,
  SIMULATOR_DEFAULTS,
  type SimulatorOptions,
  simulatedBotUid,
} from "./options.ts";
export type { SimRequest } from "./request-log.ts";
export { STREAM_DELIMITER } from "./responses.ts";
export { type FaultRoute, type Simulator, startSimulator } from "./server.ts";
