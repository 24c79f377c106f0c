// The official @e2b/code-interpreter JS SDK against dsh: state, streaming, a chart, a
// context with its cwd, an error, a timeout that interrupts, JavaScript and bash.
// Prints one line per check; test_js_sdk.py compares them exactly.
import assert from 'node:assert/strict'
import { Sandbox } from '@e2b/code-interpreter'

const sbx = await Sandbox.create()
try {
  const first = await sbx.runCode('x = 41\nx + 1')
  assert.equal(first.text, '42')
  assert.equal(first.executionCount, 1)
  console.log('state ok')

  const lines = []
  const js = await sbx.runCode('console.log("from js"); 6 * 7', {
    language: 'js',
    onStdout: (m) => lines.push(m.line),
  })
  assert.equal(js.text, '42')
  assert.deepEqual(lines, ['from js\n'])
  console.log('js ok')

  const bash = await sbx.runCode('echo "bash $((6 * 7))"', { language: 'bash' })
  assert.deepEqual(bash.logs.stdout, ['bash 42\n'])
  console.log('bash ok')

  const chart = await sbx.runCode(
    "import matplotlib.pyplot as plt\n%config InlineBackend.print_figure_kwargs = {'bbox_inches': None}\n" +
      'plt.figure(figsize=(2, 1), dpi=100)\nplt.plot([1, 2]); plt.show()',
  )
  const png = Buffer.from(chart.results[0].png, 'base64')
  assert.equal(png.readUInt32BE(16), 200)
  assert.equal(png.readUInt32BE(20), 100)
  assert.equal(chart.results[0].chart.type, 'line')
  console.log('chart ok')

  const ctx = await sbx.createCodeContext({ cwd: '/tmp' })
  assert.equal(ctx.cwd, '/tmp')
  assert.equal((await sbx.runCode('import os; os.getcwd()', { context: ctx })).text, '/tmp')
  assert.equal((await sbx.runCode('x', { context: ctx })).error.name, 'NameError')
  console.log('context ok')

  const failed = await sbx.runCode('1/0')
  assert.equal(failed.error.name, 'ZeroDivisionError')
  assert.equal(failed.error.value, 'division by zero')
  console.log('error ok')

  await assert.rejects(
    sbx.runCode('import time\nwhile True: time.sleep(0.05)', { timeoutMs: 2000 }),
    (err) => err.name === 'TimeoutError',
  )
  assert.equal((await sbx.runCode('x')).text, '41')
  console.log('interrupt ok')
} finally {
  await sbx.kill()
}
