/**
 * A test MCP server (stdio) in the shape of @kazuph/mcp-taskmanager 1.1.1: requests, each with a
 * list of tasks, kept in the JSON file $TASK_MANAGER_FILE_PATH (the real one defaults to
 * ~/Documents/tasks.json). Its tools carry no annotations and the one that creates says so only
 * in its description ("request_planning": "Register a new user request…"); every reply is JSON
 * text with a `status`, and a failure is a status too, without the MCP error flag:
 * `{"status": "error", "message": "Request not found"}`, `{"status": "task_not_found", …}`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";

const FILE = process.env.TASK_MANAGER_FILE_PATH || path.join(homedir(), "Documents", "tasks.json");
const str = { type: "string" };
const taskList = { type: "array", items: { type: "object", properties: { title: str, description: str }, required: ["title", "description"] } };
const TOOLS = [
  { name: "request_planning", description: "Register a new user request and plan its associated tasks.", inputSchema: { type: "object", properties: { originalRequest: str, tasks: taskList }, required: ["originalRequest", "tasks"] } },
  { name: "get_next_task", description: "Given a 'requestId', return the next pending task (not done yet).", inputSchema: { type: "object", properties: { requestId: str }, required: ["requestId"] } },
  { name: "open_task_details", description: "Get details of a specific task by 'taskId'.", inputSchema: { type: "object", properties: { taskId: str }, required: ["taskId"] } },
  { name: "list_requests", description: "List all requests with their basic information and summary of tasks.", inputSchema: { type: "object", properties: {} } },
  { name: "mark_task_done", description: "Mark a given task as done after you've completed it.", inputSchema: { type: "object", properties: { requestId: str, taskId: str }, required: ["requestId", "taskId"] } },
  { name: "add_tasks_to_request", description: "Add new tasks to an existing request.", inputSchema: { type: "object", properties: { requestId: str, tasks: taskList }, required: ["requestId", "tasks"] } },
  { name: "delete_task", description: "Delete a specific task from a request. Only uncompleted tasks can be deleted.", inputSchema: { type: "object", properties: { requestId: str, taskId: str }, required: ["requestId", "taskId"] } },
];

interface Task {
  id: string;
  title: string;
  description: string;
  done: boolean;
}
interface Data {
  requests: Array<{ requestId: string; originalRequest: string; tasks: Task[] }>;
  taskCounter: number;
  requestCounter: number;
}
const load = (): Data => (fs.existsSync(FILE) ? (JSON.parse(fs.readFileSync(FILE, "utf8")) as Data) : { requests: [], taskCounter: 0, requestCounter: 0 });
const save = (d: Data) => {
  fs.mkdirSync(path.dirname(FILE), { recursive: true });
  fs.writeFileSync(FILE, JSON.stringify(d, null, 2));
};
const reply = (o: object) => ({ content: [{ type: "text" as const, text: JSON.stringify(o, null, 2) }] });
const newTasks = (d: Data, tasks: Array<{ title: string; description: string }>) => tasks.map((t) => ({ id: `task-${++d.taskCounter}`, title: t.title, description: t.description, done: false }));

const server = new Server({ name: "task-planner", version: "1.1.1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  const d = load();
  const request = d.requests.find((r) => r.requestId === a.requestId);
  switch (req.params.name) {
    case "request_planning": {
      const r = { requestId: `req-${++d.requestCounter}`, originalRequest: String(a.originalRequest), tasks: newTasks(d, a.tasks as Task[]) };
      d.requests.push(r);
      save(d);
      return reply({ status: "planned", requestId: r.requestId, totalTasks: r.tasks.length, tasks: r.tasks.map(({ id, title, description }) => ({ id, title, description })) });
    }
    case "get_next_task": {
      if (!request) return reply({ status: "error", message: "Request not found" });
      const next = request.tasks.find((t) => !t.done);
      return next ? reply({ status: "next_task", task: { id: next.id, title: next.title, description: next.description } }) : reply({ status: "all_tasks_done", message: "All tasks have been completed." });
    }
    case "open_task_details": {
      for (const r of d.requests) {
        const t = r.tasks.find((x) => x.id === a.taskId);
        if (t) return reply({ status: "task_details", requestId: r.requestId, originalRequest: r.originalRequest, task: t });
      }
      return reply({ status: "task_not_found", message: "No such task found" });
    }
    case "list_requests":
      return reply({ status: "requests_listed", requests: d.requests.map((r) => ({ requestId: r.requestId, originalRequest: r.originalRequest, totalTasks: r.tasks.length, completedTasks: r.tasks.filter((t) => t.done).length })) });
    case "mark_task_done": {
      const t = request?.tasks.find((x) => x.id === a.taskId);
      if (!request) return reply({ status: "error", message: "Request not found" });
      if (!t) return reply({ status: "error", message: "Task not found" });
      t.done = true;
      save(d);
      return reply({ status: "task_marked_done", requestId: request.requestId, task: t });
    }
    case "add_tasks_to_request": {
      if (!request) return reply({ status: "error", message: "Request not found" });
      const added = newTasks(d, a.tasks as Task[]);
      request.tasks.push(...added);
      save(d);
      return reply({ status: "tasks_added", message: `Added ${added.length} new tasks to request.`, newTasks: added.map(({ id, title, description }) => ({ id, title, description })) });
    }
    case "delete_task": {
      if (!request) return reply({ status: "error", message: "Request not found" });
      const i = request.tasks.findIndex((x) => x.id === a.taskId);
      if (i < 0) return reply({ status: "error", message: "Task not found" });
      if (request.tasks[i].done) return reply({ status: "error", message: "Cannot delete completed task" });
      request.tasks.splice(i, 1);
      save(d);
      return reply({ status: "task_deleted", message: `Task ${String(a.taskId)} has been deleted.` });
    }
    default:
      return { content: [{ type: "text" as const, text: `Unknown tool: ${req.params.name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
