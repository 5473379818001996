//===- ONNXToolOptions.cpp - Command-line options of ONNX I/O -------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXToolOptions.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>

namespace cl = llvm::cl;

namespace {
struct Options {
  cl::OptionCategory cat{"ONNX input/output options"};
  cl::opt<size_t> resourceThreshold{
      "onnx-resource-threshold",
      cl::desc("Tensors larger than this many bytes are imported as "
               "dense_resource blobs"),
      cl::init(1024), cl::cat(cat)};
  cl::opt<bool> inferShapes{
      "onnx-infer-shapes",
      cl::desc("Run ONNX shape inference when importing a model"),
      cl::init(true), cl::cat(cat)};
  cl::opt<std::string> locationName{
      "onnx-location-name",
      cl::desc("File name to use in locations instead of the model's path"),
      cl::init(""), cl::cat(cat)};
  cl::opt<unsigned> inferTimeout{
      "onnx-infer-timeout",
      cl::desc("Seconds libonnx's shape inference may run (in a child "
               "process) before the import goes on without it"),
      cl::init(300), cl::cat(cat)};
  cl::opt<int64_t> maxElements{
      "onnx-max-elements",
      cl::desc("Largest number of elements a tensor may claim"),
      cl::init(int64_t(1) << 40), cl::cat(cat)};
  cl::opt<std::string> externalData{
      "onnx-external-data",
      cl::desc("When writing ONNX: put initializers larger than "
               "--onnx-external-threshold bytes in this file (a name, "
               "placed next to the output model)"),
      cl::init(""), cl::cat(cat)};
  cl::opt<size_t> externalThreshold{
      "onnx-external-threshold",
      cl::desc("Size above which initializers go to --onnx-external-data"),
      cl::init(1024), cl::cat(cat)};
};
llvm::ManagedStatic<Options> options;
} // namespace

void amk::registerONNXToolOptions() { *options; }

amk::ONNXImportOptions amk::getONNXImportOptionsFromCL() {
  ONNXImportOptions o;
  o.resourceThreshold = options->resourceThreshold;
  o.inferShapes = options->inferShapes;
  o.locationFileName = options->locationName;
  o.maxElements = options->maxElements;
  o.inferenceTimeoutSeconds = options->inferTimeout;
  return o;
}

amk::ONNXExportOptions amk::getONNXExportOptionsFromCL() {
  ONNXExportOptions o;
  o.externalDataFile = options->externalData;
  o.externalDataThreshold = options->externalThreshold;
  return o;
}

std::string amk::checkResourceBlobAlignment(llvm::StringRef text,
                                            llvm::StringRef bufferName) {
  size_t section = text.find("{-#");
  if (section == llvm::StringRef::npos ||
      text.find("dialect_resources", section) == llvm::StringRef::npos)
    return "";
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    c = (char)std::tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  for (size_t at = text.find("\"0x", section); at != llvm::StringRef::npos;
       at = text.find("\"0x", at + 3)) {
    llvm::StringRef digits = text.substr(at + 3, 8);
    if (digits.size() < 8)
      break;
    uint32_t align = 0;
    bool ok = true;
    for (int i = 0; i < 4 && ok; ++i) {
      int hi = hex(digits[2 * i]), lo = hex(digits[2 * i + 1]);
      ok = hi >= 0 && lo >= 0;
      align |= (uint32_t)(ok ? hi * 16 + lo : 0) << (8 * i);
    }
    // Other malformed blobs are MLIR's to report.
    if (ok && align == 0) {
      size_t line = text.take_front(at).count('\n') + 1;
      return (bufferName + ":" + llvm::Twine(line) +
              ": error: a dialect resource blob's first 4 bytes are its "
              "alignment, and they are 0 here; the alignment must be a "
              "power of two (e.g. \"0x04000000...\" for 4)")
          .str();
    }
  }
  return "";
}

namespace {
bool isIdentifierChar(char c) {
  return std::isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

/// Whether `token` spells a zero-width integer type (`i0`, `si0`, `ui00`),
/// alone or at the end of a shape (`2x3xi0`; `xi0` after `?` or `]`).
bool spellsZeroWidthInteger(llvm::StringRef token, char before) {
  llvm::StringRef t = token;
  if (!t.empty() && std::isdigit((unsigned char)t.front())) {
    // A shape's static dimensions: digits followed by 'x', repeated.
    while (!t.empty() && std::isdigit((unsigned char)t.front())) {
      t = t.drop_while([](char c) { return std::isdigit((unsigned char)c); });
      if (!t.consume_front("x"))
        return false;
    }
  } else if ((before == '?' || before == ']') && !t.consume_front("x")) {
    return false;
  }
  t.consume_front("s") || t.consume_front("u");
  return t.consume_front("i") && !t.empty() &&
         t.find_first_not_of('0') == llvm::StringRef::npos;
}
} // namespace

std::string amk::checkZeroWidthIntegerTypes(llvm::StringRef text,
                                            llvm::StringRef bufferName) {
  for (size_t i = 0, n = text.size(); i < n;) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = text.find('\n', i);
      continue;
    }
    if (!isIdentifierChar(c)) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < n && isIdentifierChar(text[i]))
      ++i;
    char before = start ? text[start - 1] : ' ';
    // SSA values, symbols, aliases and block labels may be named i0.
    if (llvm::StringRef("%@#!^").contains(before))
      continue;
    if (!spellsZeroWidthInteger(text.slice(start, i), before))
      continue;
    // An attribute may be named i0 too (`{i0 = 1}`).
    size_t next = text.find_first_not_of(" \t\r\n", i);
    if (next != llvm::StringRef::npos && text[next] == '=')
      continue;
    llvm::StringRef upTo = text.take_front(start);
    size_t line = upTo.count('\n') + 1;
    size_t column = start - (upTo.rfind('\n') + 1) + 1;
    return (bufferName + ":" + llvm::Twine(line) + ":" + llvm::Twine(column) +
            ": error: '" + text.slice(start, i) +
            "' names a zero-width integer type; ONNX has none, and MLIR 22 "
            "crashes printing a constant of one, so AMK refuses it")
        .str();
  }
  return "";
}

std::string amk::checkMLIRText(llvm::StringRef text,
                               llvm::StringRef bufferName) {
  // Bytecode is not text: its bytes (weights included) may spell anything.
  if (text.starts_with("ML\xefR"))
    return "";
  std::string bad = checkResourceBlobAlignment(text, bufferName);
  return bad.empty() ? checkZeroWidthIntegerTypes(text, bufferName) : bad;
}

mlir::OwningOpRef<mlir::ModuleOp> amk::loadModelFile(llvm::StringRef path,
                                                     mlir::MLIRContext *ctx,
                                                     llvm::SourceMgr &sm) {
  if (path.ends_with(".mlir") || path.ends_with(".mlirbc")) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      llvm::errs() << "error: cannot read '" << path
                   << "': " << buf.getError().message() << "\n";
      return nullptr;
    }
    std::string bad = checkMLIRText((*buf)->getBuffer(), path);
    if (!bad.empty()) {
      llvm::errs() << bad << "\n";
      return nullptr;
    }
    sm.AddNewSourceBuffer(std::move(*buf), llvm::SMLoc());
    return mlir::parseSourceFile<mlir::ModuleOp>(sm, ctx);
  }
  return importONNXFile(path, ctx, getONNXImportOptionsFromCL());
}
