import { benchOptionsFromProcess } from "./bench/config/bench-options.js";
import { formatReport } from "./bench/report/format-report.js";
import { pacedStreamSection } from "./bench/sections/paced-stream.js";
const report = await pacedStreamSection.run({ options: benchOptionsFromProcess(), log: (l) => process.stderr.write(`${l}\n`) });
process.stdout.write(formatReport(report) + "\n");
process.exit(0);
