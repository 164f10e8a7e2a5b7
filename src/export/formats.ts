/** Every output format by the name `--format` takes (one module per format, see format.ts). */
import type { ExportFormat, FormatName } from "./format.js";
import { HF_FORMAT } from "./format-hf.js";
import { LLAMAFACTORY_FORMAT } from "./format-llamafactory.js";
import { OPENRLHF_FORMAT } from "./format-openrlhf.js";
import { VERL_FORMAT } from "./format-verl.js";

export const EXPORT_FORMATS: Readonly<Record<FormatName, ExportFormat>> = {
  hf: HF_FORMAT,
  llamafactory: LLAMAFACTORY_FORMAT,
  verl: VERL_FORMAT,
  openrlhf: OPENRLHF_FORMAT,
};
