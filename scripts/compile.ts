// Placeholder replaced by the distribution work (issue 4).
console.error("compile: not implemented yet");
Deno.exit(1);
